/**
 * Agreement statistics: pure functions over labels and counts, no I/O. Each module documents its formulas.
 * Undefined values (0/0 and the like) are null with a reason string, never 0 or 1; invalid input throws
 * AgreementInputError.
 */
export * from "./labels";
export * from "./normal";
export * from "./interval";
export * from "./item-bootstrap";
export * from "./random";
export * from "./cohen";
export * from "./fleiss";
export * from "./krippendorff";
export * from "./percent";
export * from "./proportion";
export * from "./indices";
export * from "./confusion";
export * from "./ratings";
export * from "./pair-tables";
export * from "./rating-table";
export * from "./vectors";
export * from "./consensus";
export * from "./dawid-skene";
export * from "./mace";
export * from "./consolidated";

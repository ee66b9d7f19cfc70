/**
 * Domain errors: what services throw when a request cannot be served as asked.
 *
 * They carry a transport-neutral code; the tRPC layer (server/api/trpc.ts) maps the code to a TRPCError, and
 * route handlers map it to an HTTP status. Services never import tRPC, so the CLI and workers can use them too.
 */
export type AppErrorCode = "NOT_FOUND" | "BAD_REQUEST" | "CONFLICT" | "FORBIDDEN" | "UNAUTHORIZED" | "PRECONDITION_FAILED";

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "AppError";
  }
}

/** `what` names the kind of thing, `id` the key asked for: "No trajectory with id 42". */
export class NotFoundError extends AppError {
  constructor(what: string, id: string | number) {
    super("NOT_FOUND", `No ${what} with id ${JSON.stringify(id)}`);
    this.name = "NotFoundError";
  }
}

export class ValidationError extends AppError {
  /** `field` names the form field the message is about, when there is one, so a form can show it beside it. */
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super("BAD_REQUEST", message);
    this.name = "ValidationError";
  }
}

/** A value refused for a named field: the message begins with the field's name, which a form also reads from `field`. */
export class FieldValidationError extends ValidationError {
  constructor(
    override readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`, field);
    this.name = "FieldValidationError";
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super("CONFLICT", message);
    this.name = "ConflictError";
  }
}

export const HTTP_STATUS: Record<AppErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
};

/**
 * Item numbers are handed out in a cryptographically shuffled order (see server/domain/annotation/item-numbers.ts).
 */
import { randomInt } from "node:crypto";
import { shuffled } from "../../domain/annotation/item-numbers";

export function shuffleNumbers(numbers: number[]): number[] {
  return shuffled(numbers, randomInt);
}

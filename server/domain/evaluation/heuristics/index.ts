/**
 * The heuristic evaluators, in the order the CLI reports them. Each is a pure function of a trajectory's recorded
 * data; server/services/evaluation/heuristics.ts runs them and stores their verdicts like any other evaluator's.
 */
import { ANSWER_GROUNDED_HEURISTIC } from "./answer-grounded";
import { GROUNDING_HEURISTIC } from "./grounding";
import { LOOP_HEURISTIC } from "./loop";
import { NO_ANSWER_HEURISTIC } from "./no-answer";
import type { HeuristicEvaluator } from "./types";

export const HEURISTIC_EVALUATORS: readonly HeuristicEvaluator[] = [LOOP_HEURISTIC, GROUNDING_HEURISTIC, ANSWER_GROUNDED_HEURISTIC, NO_ANSWER_HEURISTIC];

export type { HeuristicEvaluator, HeuristicStep, HeuristicTrajectory, HeuristicVerdict } from "./types";

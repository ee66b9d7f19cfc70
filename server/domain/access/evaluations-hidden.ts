/**
 * What a viewer who still has to label a trajectory blind is told in place of its evaluations. The server answers
 * it for a trajectory they may open; the player shows it without asking for a campaign item whose trajectory id is
 * withheld from them (they cannot address it by id until they have labelled it).
 */
export const EVALUATIONS_HIDDEN_MESSAGE = "Evaluations are hidden until you submit your label";

export const EVALUATIONS_HIDDEN = { hidden: true as const, message: EVALUATIONS_HIDDEN_MESSAGE };

/**
 * The labelled trajectories improving-a-judge.spec.ts works with (seeded by improvement-seed.ts), and what the
 * tests' prompt-reading judge (tests/helpers/fake-judge-model.ts) makes of each. With the agent's answer shown it
 * says SUCCESS for any answer that does not give up; a criterion `… "approximately" … FAILURE` makes it refuse a
 * guess; an <example> whose task shares half its content words with the case lends it its verdict. With the answer
 * hidden (and no action history, as the configuration is set) it sees no task word anywhere and says FAILURE.
 *
 *   pair  site     people   answer                     judge (own prompt)
 *   A     museum   failure  "approximately …"          success   (a guess taken for an answer)
 *   B     maps     success  a plain answer             success
 *   C     wiki     failure  gives up                   failure
 *   D     library  success  none (page shows it)       failure
 *   E     shoes    success  a plain answer             success   (the twins' tasks are near-duplicates)
 */
export const IMPROVEMENT_TWINS = [
  {
    pair: "A",
    site: "museum",
    human: "failure",
    note: "",
    items: [
      { intent: "Find the opening hours of the modern art museum", answer: "approximately 9 to 5" },
      { intent: "Find the entrance fee of the history museum", answer: "approximately $12" },
    ],
  },
  {
    pair: "B",
    site: "maps",
    human: "success",
    note: "",
    items: [
      { intent: "Find the distance from Lyon to Paris by road", answer: "465 km" },
      { intent: "Find the driving time from Bern to Basel", answer: "1 hour" },
    ],
  },
  {
    pair: "C",
    site: "wiki",
    human: "failure",
    note: "",
    items: [
      { intent: "Find the birth year of the painter Artemisia Gentileschi", answer: "cannot find it" },
      { intent: "Find who designed the Sydney Opera House", answer: "unable to tell" },
    ],
  },
  {
    pair: "D",
    site: "library",
    human: "success",
    note: "the confirmation page shows the subscription",
    items: [
      { intent: "Subscribe to the weekly newsletter of the city library", answer: null },
      { intent: "Get the library's weekly newsletter by email", answer: null },
    ],
  },
  {
    pair: "E",
    site: "shoes",
    human: "success",
    note: "",
    items: [
      { intent: "Find the cheapest red shoes on shop A", answer: "$30" },
      { intent: "Find the cheapest red shoes on shop B", answer: "$32" },
    ],
  },
] as const;

/**
 * What the trajectory list, the player and the labelling page load in the browser (issue 30, item 7: each within
 * 500 ms at 10,000 trajectories). Their browser code once carried zod through shared vocabulary modules (the list's
 * query schema, the task validity ledger's input schema and CSV writer behind the player's flag dialog, the label
 * schema behind the labelling surface): about 160 KB of script parsed before the page hydrates. The walk starts at
 * each page, follows its app/ modules to the "use client" parts and everything those import
 * (tests/helpers/client-imports.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { packagesReached, root, serverWeightReached } from "../helpers/client-imports";

const PAGES = {
  "the trajectory list": "app/trajectories/page.tsx",
  "the player": "app/trajectories/[id]/page.tsx",
  "the labelling page": "app/(annotation)/annotate/[campaignId]/[itemNo]/page.tsx",
};
const SERVER_WEIGHT = ["zod", "csv-parse", "csv-stringify"];

describe("the list, player and labelling pages' browser code", () => {
  it("walks from a page to its client parts: the server side's own imports are not counted, the client's are", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-client-weight-"));
    try {
      fs.writeFileSync(path.join(dir, "page.tsx"), `import { z } from "zod";\nimport { Part } from "./part";\nimport type { T } from "./types";\n`);
      fs.writeFileSync(path.join(dir, "part.tsx"), `"use client";\nimport { useState } from "react";\nimport { VOCABULARY } from "./vocabulary";\n`);
      fs.writeFileSync(path.join(dir, "vocabulary.ts"), `import type { Z } from "zod";\nexport { parse } from "csv-parse/sync";\n`);
      fs.writeFileSync(path.join(dir, "types.ts"), `"use client";\nimport "recharts";\n`);
      const reached = packagesReached(path.join(dir, "page.tsx"));
      // The page's own zod stays on the server; the part's React and its vocabulary's CSV parser ship; type-only
      // imports are erased.
      expect(Object.fromEntries([...reached].map(([p, chain]) => [p, chain.map((f) => path.basename(f))]))).toEqual({
        react: ["page.tsx", "part.tsx"],
        "csv-parse": ["page.tsx", "part.tsx", "vocabulary.ts"],
      });
      const heavy = serverWeightReached(path.join(dir, "page.tsx"), SERVER_WEIGHT);
      expect(heavy).toHaveLength(1);
      expect(heavy[0]).toMatch(/^csv-parse via \S*page\.tsx → \S*part\.tsx → \S*vocabulary\.ts$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // The real list page reaches its client parts (filter bar, table) through its server component.
    expect([...packagesReached(path.join(root, PAGES["the trajectory list"])).keys()]).toEqual(
      expect.arrayContaining(["react", "next", "@tanstack/react-query"]),
    );
  });

  it.each(Object.entries(PAGES))("%s reaches no zod and no CSV library", (_name, page) => {
    expect(serverWeightReached(path.join(root, page), SERVER_WEIGHT)).toEqual([]);
  });
});

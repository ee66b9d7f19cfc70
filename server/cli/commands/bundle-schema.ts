import fs from "node:fs";
import { bundleJsonSchema } from "../../domain/imports/bundle";
import { flagString, parseArgs, userPath } from "../args";
import type { CliCommand } from "../types";

export const bundleSchemaCommand: CliCommand = {
  name: "bundle-schema",
  summary: "print (or write) the JSON Schema of the native trajectory bundle manifest",
  usage: "npm run cli -- bundle-schema [--out docs/bundle.schema.json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["out"] });
    const text = JSON.stringify(bundleJsonSchema(), null, 2) + "\n";
    const out = flagString(args, "out");
    if (out) {
      fs.writeFileSync(userPath(io, out), text);
      io.stderr(`Wrote ${out}\n`);
    } else io.stdout(text);
    return 0;
  },
};

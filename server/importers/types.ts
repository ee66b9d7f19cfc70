/**
 * The importer interface. Each source format is one self-contained module that turns files on disk into
 * normalised items; `server/services/imports/ingest.ts` validates, stores and commits them in one transaction.
 *
 * Importers stream: they yield one trajectory at a time and read images lazily through `ImageRef.read()`,
 * so a source of any size is never held in memory whole.
 */
import { AppError } from "../errors";
import type { Outcome, ReferenceAnswer, TaskAttributes, TaskDifficulty, StepContent } from "../domain/types";

/** An image the importer found; read on demand. `origin` names it in error messages (file path, zip entry…). */
export interface ImageRef {
  origin: string;
  read(): Promise<Uint8Array>;
}

export interface ImportTaskSet {
  name: string;
  benchmark: string;
  description?: string | null;
}

export interface ImportTask {
  taskSet: ImportTaskSet;
  externalId: string;
  site: string | null;
  intent: string;
  startUrl: string | null;
  inputImages: string[];
  referenceAnswers: ReferenceAnswer[];
  evaluatorConfig: unknown;
  difficulty: TaskDifficulty | null;
  tags: string[];
  extra: Record<string, unknown> | null;
  /** The source's own task fields as split keys (server/domain/catalog/task-attributes.ts); absent or null when none. */
  attributes?: TaskAttributes | null;
  /**
   * True when the task came from the benchmark's own task file: it then replaces what is stored. A task known
   * only from a trajectory never overwrites a stored one (a trajectory knows less about its task).
   */
  fromTaskFile?: boolean;
}

export interface ImportRun {
  /**
   * The run as the source names it, prefixed by the format: "webvoyager:results/20250414_14_44_45" (runKeyFromPath).
   * Never an absolute path or anything else about where the files sat: the same run imported from another place
   * must give the same key. Only the run folder's own name (the last part) takes part in a trajectory's identity.
   */
  runKey: string;
  name: string;
  agentName: string;
  model: string | null;
  sourceSystem: string;
  config: Record<string, unknown> | null;
}

export interface ImportStep extends StepContent {
  index: number;
  screenshot: ImageRef | null;
  rawScreenshot: ImageRef | null;
  marksBurnedIn: boolean;
  durationMs?: number | null;
}

export interface ImportTrajectory {
  task: ImportTask;
  run: ImportRun;
  attempt: number;
  finalAnswer: string | null;
  outcome: Outcome;
  outcomeDetail: string | null;
  /**
   * The trajectory's own files that are not images (its transcript, render page, summary), whose bytes make up its
   * source identity with its images (server/domain/imports/identity.ts). Files several trajectories share (a run's
   * log, a task file) are left out: adding a trajectory to a run must not change the others' identity.
   */
  sourceFiles?: string[];
  /** The folder or file the trajectory was read from (shown to people relative to the import: ingest.ts pathShower). */
  sourcePath: string;
  steps: ImportStep[];
  /** Verdicts the source system wrote about this trajectory (benchmark rewards, PASS/FAIL logs, judge outputs). */
  verdicts?: ImportVerdict[];
  /**
   * Repairs the importer made while reading this trajectory, in words for the import report ("step 8 has no
   * screenshot"). The trajectory is still imported; `--strict` turns any warning into a skip.
   */
  warnings?: string[];
}

/**
 * One verdict found in another system's output. `evaluator` names its source ("visualwebarena:log",
 * "browsergym:cum_reward", "agentrewardbench:gpt-4o-screen"); `raw` keeps what was read, for audit.
 */
export interface ImportVerdict {
  evaluator: string;
  evaluatorKind: "rule" | "judge" | "human";
  verdict: "success" | "failure" | "unparseable" | "not_evaluable";
  score: number | null;
  rationale: string | null;
  raw: unknown;
  /** Stored key; default `import:<evaluator>`. Must start with "import:". */
  key?: string;
  /** Screenshot window and prompt version of a judge verdict (empty when not applicable). */
  k?: string;
  promptVersion?: string;
  model?: string | null;
  /** Steps whose screenshots the evaluator looked at (a judge's key screenshots), oldest first. */
  stepIndices?: number[];
  /** What the evaluator recorded beyond its verdict (a judge's key points, per-screenshot scores), shown with it. */
  details?: Record<string, unknown>;
}

/**
 * What an importer yields. `skipped` is a trajectory (or other unit) the importer found but could not read: the
 * import goes on with the rest and the report lists `path` and `reason` (which names the file and the problem).
 */
export type ImportItem =
  | { kind: "task"; task: ImportTask }
  | { kind: "trajectory"; trajectory: ImportTrajectory }
  | { kind: "skipped"; path: string; reason: string }
  | { kind: "evaluatorLog"; log: EvaluatorLogReport }
  | { kind: "source"; file: string; role: string };

/**
 * What became of one file of verdicts (an auto-evaluation log, a judgments file): how many of its blocks judged a
 * trajectory of this import, and which did not and why, so no verdict is lost without a word. Yielded once the
 * importer has matched the file, usually after the trajectories.
 */
export interface EvaluatorLogReport {
  file: string;
  evaluator: string;
  /** "run:<file name>" when the file is one of several runs of one judge (stored apart); empty otherwise. */
  run: string;
  blocks: number;
  matched: number;
  unmatched: { block: string; reason: string }[];
  /** Verdicts taken from the file, by value (success, failure, unparseable, not_evaluable). */
  verdicts: Record<string, number>;
}

/** A folder and the name the person knows it by (see ImportOptions.renamed). */
export interface RenamedFolder {
  dir: string;
  name: string;
}

export interface ImportOptions {
  /** Task file given on the command line (`--tasks`), for formats that join tasks from elsewhere. */
  tasksFile?: string;
  /**
   * Folder of screenshots given on the command line (`--screenshots`), for formats whose files name images by
   * paths of the machine that ran the agent (Browser Use): images are looked up there by file name and step number.
   */
  screenshotsDir?: string;
  /**
   * Auto-evaluator logs named on the command line (`--eval-log FILE`, repeatable), for formats whose evaluator
   * wrote its verdicts to a separate log (WebVoyager's auto_eval). One log is one evaluator.
   */
  evalLogs?: string[];
  /**
   * A folder the person knows by another name than its own: an uploaded zip unpacked into a folder of the server's
   * choosing is the zip (its name without ".zip"). Run names and keys use it (find-folders.ts runNameFromPath).
   */
  renamed?: RenamedFolder;
  /**
   * No file above this folder is read: an upload's unpacked folder, the server's import root. Unset on the command
   * line, where task files and logs beside the imported folder are read too (and named in the report).
   */
  boundary?: string;
  /** Identity of the database being imported into (db/schema/instance.ts). */
  instanceId?: string;
  /** Called by the importer once it knows how many items it will yield. */
  onTotal?: (total: number) => void;
}

export interface Importer {
  /** The `--format` name. */
  format: string;
  description: string;
  /** How sure the importer is that `inputPath` is its format: 0 (no) to 1 (certain). Must be cheap. */
  sniff(inputPath: string): Promise<number>;
  read(inputPath: string, options: ImportOptions): AsyncGenerator<ImportItem>;
}

/** A problem with the input: always names the file (or entry) and what is wrong with it. */
export class ImportError extends AppError {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super("BAD_REQUEST", `${file}: ${problem}`);
    this.name = "ImportError";
  }
}

// reducer-kit from TypeScript: the kit's Rust library in WebAssembly.
// Histories are arrays of message objects in a wire format (docs/formats.md),
// or request envelopes ({ maxMessages: 4, messages: [...] }, with the
// format's top-level system member where it has one). Errors are
// ReducerKitError with the command line's text.

/** A message object of a wire format. */
export type Message = Record<string, unknown>;
/** A history: the messages, or a request envelope. */
export type History = Message[] | Request;

/** A request as the protocol sends it (spec §8, §13). */
export interface Request {
  messages: Message[];
  maxMessages?: unknown;
  maxTokens?: unknown;
  tokens?: unknown;
  countPinned?: unknown;
  summaryTokens?: unknown;
  id?: number;
  system?: unknown;
  systemInstruction?: unknown;
  [member: string]: unknown;
}

/** A reducer's answer: the response object, or just the messages kept. */
export type Answer =
  | Message[]
  | { messages: Message[]; [member: string]: unknown }
  | { error: string }
  | { unsupported: string };

export type Format = "canonical" | "openai" | "anthropic" | "responses" | "gemini" | "bedrock";
export type Policy = "turns" | "suffix" | "repair";
export type Provider = "openai-chat" | "openai-responses" | "anthropic" | "gemini" | "bedrock";

export declare const FORMATS: readonly Format[];
export declare const POLICIES: readonly Policy[];
export declare const PROVIDERS: readonly Provider[];
/** The kit's version. */
export declare const version: string;

/** An error of reducer-kit, with the command line's text (`reducer-kit: error: ` left off). */
export declare class ReducerKitError extends Error {}

/** A budget: the members of a request envelope (spec §2, §13). */
export interface Budget {
  maxMessages?: unknown;
  maxTokens?: unknown;
  tokens?: unknown;
  countPinned?: unknown;
}

/** One rule of spec §5 that a history breaks (`reducer-kit validate`). */
export interface Violation {
  /** The rule's id (`result-follows-call`, ...), `malformed`, or a provider rule's id. */
  rule: string;
  /** The message it is about (0-based, the kit's list), when there is one. */
  index: number | null;
  /** The call or approval request id involved, when there is one. */
  id: string | null;
  /** The line `reducer-kit validate` prints for it. */
  text: string;
}

/** One clause's verdict on one answer (`reducer-kit check`). */
export interface Verdict {
  /** The clause id (`no-orphan-result`, ...). */
  clause: string;
  /** `protocol`, `safety`, `policy` or `exact`. */
  level: string;
  outcome: "pass" | "fail" | "not judged";
  /** Where it fails, or why it is not judged; empty when it passes. */
  detail: string;
  /** The clause's definition (spec §6). */
  definition: string;
  /** Whether the clause fails. */
  failed: boolean;
}

/**
 * The rules of spec §5 that `history` breaks (`reducer-kit validate`): empty
 * when it is valid. `allowPending`: calls of the newest turn may be
 * unanswered; `provider`: also the provider's rules (spec §15.3).
 * Throws ReducerKitError when the messages are not in `format`.
 */
export declare function validate(
  history: History,
  options?: { format?: Format; allowPending?: boolean; provider?: Provider },
): Violation[];

/**
 * The reference reducer's answer (`reducer-kit reduce`): the messages kept
 * for an array, the response object for an envelope. Throws
 * ReducerKitError with the kit's text for a budget it refuses.
 */
export declare function reduce(
  history: History,
  options?: { policy?: Policy; format?: Format; provider?: Provider } & Budget,
): any;

/** Every clause's verdict on `output`, one answer to `history` (`reducer-kit check`). */
export declare function check(
  history: History,
  output: Answer,
  options: {
    policy: Policy;
    format?: Format;
    provider?: Provider;
    summaries?: boolean;
    summaryTokens?: number;
  } & Budget,
): Verdict[];

/** A case of the case format (spec §7), as `reducer-kit generate` writes it. */
export interface Case {
  id: string;
  messages: Message[];
  maxMessages?: unknown;
  expected?: unknown;
  [member: string]: unknown;
}

/**
 * Generated cases `gen/<seed>/0` .. `count - 1` (`reducer-kit generate`):
 * the cases `certify` runs with the same seed and format. `config`: a
 * generator config (`generate::Config` fields).
 */
export declare function generate(options?: {
  count?: number;
  seed?: number;
  format?: Format;
  policy?: Policy;
  config?: Record<string, unknown>;
}): Case[];

/** One history drawn by the generator from bytes. */
export interface Drawn {
  /** The history in the format (a top-level system prompt as a leading pseudo-message). */
  messages: Message[];
  /** The request `certify` would send with it. */
  request: Request;
  maxMessages: number;
  allowPending: boolean;
}

/**
 * The history the kit's generator builds from `bytes` (every choice read
 * from the next bytes, the smallest when they run out), or undefined when
 * it has no form in the format. `swarm`: bytes of the draw of the knobs;
 * other members: generator knobs (generatorKnobs()).
 */
export declare function generateFromBytes(
  bytes: Uint8Array | number[],
  options?: {
    format?: Format;
    protocol?: 1 | 2;
    without?: string | string[];
    swarm?: Uint8Array | number[];
    [knob: string]: unknown;
  },
): Drawn | undefined;

/** The generator's knobs as certify sets them for `format`, and the names `without` takes. */
export declare function generatorKnobs(
  format?: Format,
  protocol?: 1 | 2,
): { config: Record<string, unknown>; without: string[] };

/** A reducer: the request in, the answer out (or a Promise of it); a throw is an error answer. */
export type Reducer = (request: Request) => Answer | Promise<Answer>;

/** The options of `certify`: `reducer-kit certify`'s (docs/cli.md). */
export interface CertifyOptions {
  policy?: Policy;
  format?: Format;
  /** Generated cases besides the corpus (2000). */
  cases?: number;
  seed?: number;
  /** Generator knobs to skip (`--without`). */
  without?: string | string[];
  /**
   * Shapes a default run of the format leaves out, to run all the same
   * (`--with`, spec §9.5): `role-case`, `approvals`, `legacy-approvals`,
   * `non-double-numbers`, and `budget-spellings` (budgets written other
   * than as an integer: `3.0`, `true`, `2.5`, which an in-process run does
   * not send by default).
   */
  with?: string | string[];
  /** Documented differences from the contract (spec §16, `--declare`). */
  declare?: string | string[];
  protocol?: 1 | 2;
  summaries?: boolean;
  provider?: Provider;
  /** Case folders (the kit's own corpus by default). */
  corpus?: string[];
  replay?: string[];
  /** Case ids (`--case`). */
  only?: string[];
  shrinkTries?: number;
  /** Seconds. */
  shrinkTime?: number;
  /** Bytes. */
  maxOutput?: number;
  /**
   * Stop at the first defect, shrink it and report (`--stop-after-first`);
   * a passing run still runs every case. `false` by default; `true` by
   * default in `assertCertified`.
   */
  stopAfterFirst?: boolean;
  /** The reducer's name in the reports (the function's name). */
  name?: string;
}

/** A minimal counterexample: an object of the JSON report's `counterexamples`. */
export interface Counterexample {
  clause: string;
  definition: string;
  detail: string;
  /** The minimal input's messages (canonical). */
  messages: Message[];
  maxMessages?: unknown;
  maxTokens?: unknown;
  tokens?: unknown;
  expected: unknown;
  actual: unknown;
  /** The case it was shrunk from: certify(fn, { only: [originalId] }) reruns it. */
  originalId: string;
  validInput?: boolean;
  cases: number;
  /**
   * The index of the text report's counterexample that draws it: one input
   * failing several clauses with the same answers is drawn once.
   */
  drawnAs: number;
  /** The counterexample as the text report shows it (shared by those drawn together). */
  text: string;
  [member: string]: unknown;
}

/** What certify found (the JSON report of `reducer-kit certify --report-json`, spec §9). */
export declare class Report {
  readonly name: string;
  /** The JSON report, as `--report-json` writes it. */
  readonly json: Record<string, any>;
  /** The text report `reducer-kit certify` prints. */
  readonly text: string;
  /**
   * The HTML report, as `reducer-kit certify --report-html` writes it: one
   * self-contained page (no script), each counterexample drawn as a conversation.
   */
  html(): string;
  /** Every level passed. */
  readonly passed: boolean;
  /** Whether `reducer-kit certify` would exit 1. */
  readonly failed: boolean;
  readonly levels: Record<string, boolean>;
  readonly clauses: Record<string, { level: string; passed: number; failed: number; defects?: number; invalidInput?: number; notJudged?: number }>;
  readonly certificate: string;
  readonly casesRun: number;
  readonly casesSkipped: number;
  readonly counterexamples: Counterexample[];
  /**
   * What the answers suggest to change or declare (a `developer` message is
   * the system prompt, a declaration that fits the failures, another wire
   * format): the text report's `hint:` lines, without the prefix.
   */
  readonly hints: string[];
  /** The clauses that fail on a valid input. */
  readonly failingClauses: string[];
  /** The certificate line and the first minimal counterexample. */
  explain(): string;
  toString(): string;
}

/**
 * The whole battery of `reducer-kit certify` (the kit's corpus, generated
 * cases, shrinking, levels, reports) against `reducer`, in process. An
 * async reducer runs the battery in a worker thread.
 */
export declare function certify(reducer: Reducer, options?: CertifyOptions): Promise<Report>;

/** certify for a synchronous reducer, without a Promise. */
export declare function certifySync(
  reducer: (request: Request) => Answer,
  options?: CertifyOptions,
): Report;

/**
 * certify, and throw an AssertionError with the minimal counterexample
 * unless it passes; stops at the first defect unless `stopAfterFirst` is
 * `false`.
 */
export declare function assertCertified(reducer: Reducer, options?: CertifyOptions): Promise<Report>;

/** The answer line for `answer` to the request of text `requestText` (the wire program's output). */
export declare function answerText(requestText: string, answer: unknown): string;
/** The error answer line for what a reducer threw. */
export declare function errorText(requestText: string, error: unknown): string;

/**
 * A JSON number that JavaScript's numbers would not write back the same
 * (`1.0`, `1e2`, `12345678901234567890`): certify gives such a number of a
 * request to a reducer as a JsonNumber, which writes its own text back, so
 * that a kept message comes back as it came. `Number(x)` is its value.
 */
export declare class JsonNumber {
  constructor(text: string);
  readonly text: string;
  valueOf(): number;
  toString(): string;
}
/** JSON text as values, numbers exact (JsonNumber): as certify gives a request to a reducer. */
export declare function parse(text: string): any;
/** Values as compact JSON text, a JsonNumber as its text; TypeError for what is not JSON (NaN, a cycle). */
export declare function stringify(value: unknown): string;

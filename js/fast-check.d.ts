import type { Arbitrary } from "fast-check";
import type { Format, Message, Request } from "./index.js";

/** The options of the arbitraries: the format, protocol, knobs off (`without`), byte counts, generator knobs. */
export interface DrawOptions {
  format?: Format;
  protocol?: 1 | 2;
  without?: string | string[];
  minBytes?: number;
  maxBytes?: number;
  /** Generator knobs (generatorKnobs()); `pending` is false unless set. */
  [knob: string]: unknown;
}

export declare const MIN_BYTES: number;
export declare const SWARM_BYTES: number;
export declare const MAX_BYTES: number;

/** Valid histories in `format`, drawn from the kit's generator. */
export declare function histories(options?: DrawOptions): Arbitrary<Message[]>;
/** Message budgets from 1 to `maxValue`; with `invalid`, also values that are none. */
export declare function budgets(options?: { maxValue?: number; invalid?: boolean }): Arbitrary<unknown>;
/** Requests as certify sends them. */
export declare function requests(options?: DrawOptions & { budget?: Arbitrary<unknown> }): Arbitrary<Request>;

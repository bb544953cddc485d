// fast-check arbitraries drawing valid histories from the kit's generator:
// fast-check draws the bytes every choice of the generator reads (how many
// turns, which step, how many parallel calls, which budget), the kit builds
// the history from them (generateFromBytes), so fast-check's shrinking
// (shorter, smaller bytes give simpler histories) works as for any
// arbitrary. As the Python package's Hypothesis strategies
// (python/reducer_kit/hypothesis.py).

import fc from "fast-check";
import { generateFromBytes } from "./index.js";

/** How many bytes a draw takes at least: 64 give histories of five messages on average. */
export const MIN_BYTES = 64;
/** The bytes of the swarm draw of the knobs (which are on, the maxima). */
export const SWARM_BYTES = 32;
/** How many bytes a draw may take at most. */
export const MAX_BYTES = 4096;

function draws({ format = "canonical", protocol = 1, without, minBytes = MIN_BYTES, maxBytes = MAX_BYTES, ...knobs }) {
  knobs = { pending: false, ...knobs };
  // Unknown knobs, formats and protocols are refused now, not at a draw.
  generateFromBytes([], { format, protocol, without, ...knobs });
  // The knobs' swarm draw reads bytes of its own: shrinking the history's
  // bytes leaves the knobs as they are, and shrinking these turns knobs off.
  const swarm = fc.uint8Array({ minLength: SWARM_BYTES, maxLength: SWARM_BYTES });
  const data = fc.uint8Array({ minLength: minBytes, maxLength: maxBytes });
  return fc
    .tuple(swarm, data)
    .map(([s, d]) => generateFromBytes(d, { format, protocol, without, swarm: s, ...knobs }))
    .filter((d) => d !== undefined);
}

/** Valid histories in `format`: arrays of message objects. */
export function histories(options = {}) {
  return draws(options).map((d) => d.messages);
}

/** Message budgets: whole numbers from 1 to `maxValue`; with `invalid`, also values that are none (spec §2). */
export function budgets({ maxValue = 64, invalid = false } = {}) {
  const valid = fc.integer({ min: 1, max: maxValue });
  if (!invalid) return valid;
  return fc.oneof(valid, fc.constantFrom(0, -1, 2.5, "3", null, true, [], {}));
}

/**
 * Requests as certify sends them: { maxMessages: n, messages: [...] }, the
 * budget one of `budget` (default budgets({ maxValue: 16 })) or the
 * generator's, so that a failure shrinks to a short history.
 */
export function requests({ budget, ...options } = {}) {
  const own = budget ?? budgets({ maxValue: 16 });
  return fc.tuple(draws(options), fc.option(own, { nil: undefined })).map(([d, b]) => {
    let request = d.request;
    if (b !== undefined && "maxMessages" in request) request = { ...request, maxMessages: b };
    return request;
  });
}

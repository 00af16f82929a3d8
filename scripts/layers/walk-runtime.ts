/**
 * The recorder of the query walk (query-walk.ts, issue 39): which source file calls which as a query runs. A module
 * loaded through walk-plugin.ts has its exported functions and classes' methods wrapped here; a wrapper notes the call
 * when it crosses from one file to another, and runs the function with its file as the current one
 * (AsyncLocalStorage, so the file is still the caller after an `await`). Plain objects a wrapped function returns
 * (a store, a backend, a vector leg: closures over their file) get their function properties wrapped too, under the
 * file that made them.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** One call across files: `from` called `name` of `to` (paths relative to `src/`; "driver" for the walk's own code). */
export interface CrossingCall {
  from: string;
  to: string;
  name: string;
}

const current = new AsyncLocalStorage<string>();
const wrapped = new WeakSet<object>();
let recording = false;
let calls: CrossingCall[] = [];

/** Start recording (forgetting what was recorded before). */
export function startWalk(): void {
  calls = [];
  recording = true;
}

/** Stop recording and return the calls across files, in the order they were made. */
export function stopWalk(): CrossingCall[] {
  recording = false;
  return calls;
}

/** `fn` of `file`, wrapped to record the calls that enter it from another file. */
export function walkWrap<F>(file: string, name: string, fn: F): F {
  if (typeof fn !== "function" || wrapped.has(fn)) return fn;
  const original = fn as unknown as (...args: unknown[]) => unknown;
  const wrapper = function (this: unknown, ...args: unknown[]) {
    const from = current.getStore() ?? "driver";
    if (recording && from !== file) calls.push({ from, to: file, name });
    return current.run(file, () => wrapResult(file, original.apply(this, args)));
  };
  Object.defineProperty(wrapper, "name", { value: original.name });
  wrapped.add(wrapper);
  return wrapper as unknown as F;
}

/** Wrap the methods of an exported class's prototype (and its static methods). */
export function walkWrapClass(file: string, name: string, type: unknown): void {
  if (typeof type !== "function") return;
  for (const target of [type.prototype as Record<string, unknown>, type as unknown as Record<string, unknown>]) {
    for (const key of Object.getOwnPropertyNames(target)) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      if (key === "constructor" || !descriptor || typeof descriptor.value !== "function" || !descriptor.writable)
        continue;
      target[key] = walkWrap(file, `${name}.${key}`, descriptor.value);
    }
  }
}

function wrapResult(file: string, result: unknown): unknown {
  if (result instanceof Promise) return result.then((value) => wrapObject(file, value));
  return wrapObject(file, result);
}

function wrapObject(file: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
  if (wrapped.has(value) || Object.isFrozen(value)) return value;
  wrapped.add(value);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const descriptor = Object.getOwnPropertyDescriptor(record, key);
    if (descriptor?.writable && typeof descriptor.value === "function")
      record[key] = walkWrap(file, key, descriptor.value);
  }
  return value;
}

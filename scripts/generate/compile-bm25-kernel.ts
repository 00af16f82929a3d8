/**
 * Compiles src/search/ranking/bm25-kernel.wat to WebAssembly with wabt (wat2wasm's npm build): the one compilation that
 * scripts/generate/bm25-kernel.ts writes out and test/search/bm25-kernel.test.ts compares with what is checked in.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import wabt from "wabt";

/** Path of the kernel's WebAssembly text. */
export const bm25KernelWatPath = join(import.meta.dir, "..", "..", "src", "search", "ranking", "bm25-kernel.wat");

/**
 * The binary of bm25-kernel.wat (no custom sections: no names, so the bytes depend on the text's code only).
 * @throws Error from wabt when the text does not parse or validate
 */
export async function compileBm25Kernel(): Promise<Uint8Array> {
  const toolkit = await wabt();
  const module = toolkit.parseWat("bm25-kernel.wat", readFileSync(bm25KernelWatPath, "utf8"));
  try {
    module.validate();
    return module.toBinary({ write_debug_names: false }).buffer;
  } finally {
    module.destroy();
  }
}

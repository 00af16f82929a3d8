/**
 * Which default embedding model this machine can carry (issue 12): Qwen3-Embedding-0.6B is right with a GPU and too
 * slow on a CPU-only laptop for a first full embed (≈ 1.5 docs/s on this 2-core machine; its shape, generated:
 * 443+ ms per 200-token text against 129–262 ms for MiniLM/bge-small, runtime-notes §6). The check is synchronous and
 * cheap (no llama.cpp load): Apple silicon has Metal (node-llama-cpp's macOS arm64 prebuilt uses it); elsewhere a GPU
 * counts only when node-llama-cpp's CUDA or Vulkan prebuilt is installed AND the device node exists, since a GPU
 * recall cannot drive does not make embedding faster. The compiled Linux binary carries the CPU prebuilt only.
 */
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";

/** The accelerator found, or none, and why, in one phrase (shown by `doctor` and `recall model list`). */
export interface HardwareReport {
  gpu: "metal" | "cuda" | "vulkan" | undefined;
  reason: string;
}

function canResolve(specifier: string): boolean {
  try {
    createRequire(import.meta.url).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

/** Detects the accelerator node-llama-cpp can use here (see the module doc). */
export function detectHardware(platform: string = process.platform, arch: string = process.arch): HardwareReport {
  if (platform === "darwin" && arch === "arm64") return { gpu: "metal", reason: "Apple silicon (Metal)" };
  if (platform === "linux" || platform === "win32") {
    const cudaDevice = existsSync("/dev/nvidia0") || existsSync("/proc/driver/nvidia/version");
    if (cudaDevice && canResolve(`@node-llama-cpp/${platform}-${arch}-cuda/package.json`))
      return { gpu: "cuda", reason: "an NVIDIA GPU with node-llama-cpp's CUDA build" };
    let renderNode = false;
    try {
      renderNode = readdirSync("/dev/dri").some((name) => name.startsWith("renderD"));
    } catch {
      // no /dev/dri
    }
    if (renderNode && canResolve(`@node-llama-cpp/${platform}-${arch}-vulkan/package.json`))
      return { gpu: "vulkan", reason: "a GPU with node-llama-cpp's Vulkan build" };
  }
  return { gpu: undefined, reason: "no GPU that node-llama-cpp can use here" };
}

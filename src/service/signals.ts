/**
 * Waiting for a stop signal in a long-running command (`recall watch`, `recall ui`).
 */

/** Resolves on the first of `signals`; its handlers are removed then, so a second signal has its default effect. */
export function untilSignal(signals: NodeJS.Signals[]): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      for (const name of signals) process.off(name, handler);
      resolve(signal);
    };
    for (const name of signals) process.on(name, handler);
  });
}

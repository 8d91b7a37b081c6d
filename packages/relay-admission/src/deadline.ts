/**
 * `work`'s answer, or `late()`'s once `ms` pass first; the timer is cleared either way. The
 * relay must never wait on the wallet: each layer that answers a relay bounds its wait with this.
 */
export async function within<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<T>((resolve, reject) => {
        timer = setTimeout(() => {
          try {
            resolve(late());
          } catch (err) {
            reject(err);
          }
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

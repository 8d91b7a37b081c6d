/** Anything a suite starts before its tests and closes after them (the upstream fakes). */
export interface Startable {
  start(): Promise<unknown>;
  close(): Promise<void>;
}

/** Starts every fake before the suite and closes them all after it, and returns them. */
export function useFakes<T extends readonly Startable[]>(...fakes: T): T {
  before(async () => {
    for (const fake of fakes) await fake.start();
  });
  after(async () => {
    await Promise.all(fakes.map((fake) => fake.close()));
  });
  return fakes;
}

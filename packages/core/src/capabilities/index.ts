export type CapabilityContributor = () => Record<string, unknown>;

/**
 * `/capabilities` is assembled from contributions of core and plugins. Each key belongs to one
 * contributor; a key claimed twice is a boot-time problem, found by `problems()`.
 */
export class CapabilityRegistry {
  private readonly contributors: Array<{ owner: string; contribute: CapabilityContributor }> = [];

  contribute(owner: string, contribute: CapabilityContributor): void {
    this.contributors.push({ owner, contribute });
  }

  /** Keys claimed by more than one contributor, as problem lines. */
  problems(): string[] {
    const owners = new Map<string, string>();
    const problems: string[] = [];
    for (const { owner, contribute } of this.contributors) {
      let keys: string[];
      try {
        keys = Object.keys(contribute());
      } catch (err) {
        problems.push(`capability contributor of ${owner} threw: ${(err as Error).message}`);
        continue;
      }
      for (const key of keys) {
        const first = owners.get(key);
        if (first !== undefined) problems.push(`capability "${key}" is contributed by both ${first} and ${owner}`);
        else owners.set(key, owner);
      }
    }
    return problems;
  }

  /** The document, computed per request so runtime state (feature switches, settings) shows at once. */
  assemble(): Record<string, unknown> {
    return Object.assign({}, ...this.contributors.map(({ contribute }) => contribute()));
  }
}

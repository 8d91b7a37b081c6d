import { readFileSync } from 'node:fs';

/** The machine's CPU time so far, in ticks (/proc/stat's first line): all of it, the idle share, and the hypervisor's steal. */
export interface MachineCpuTimes {
  total: number;
  /** Idle and waiting on I/O: not busy. */
  idle: number;
  steal: number;
}

/** Now; null without /proc (not Linux). */
export function machineCpuTimes(): MachineCpuTimes | null {
  try {
    // cpu user nice system idle iowait irq softirq steal (guest time is inside user already).
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return null;
    return { total: fields.reduce((a, b) => a + b, 0), idle: fields[3]! + fields[4]!, steal: fields[7]! };
  } catch {
    return null;
  }
}

/** The machine's busy share between two readings (0–1); NaN without /proc. */
export function busyShare(before: MachineCpuTimes | null, after: MachineCpuTimes | null): number {
  if (before === null || after === null) return NaN;
  return 1 - (after.idle - before.idle) / Math.max(1, after.total - before.total);
}

/**
 * The share of the machine's CPU time since `start` that its hypervisor gave to other guests, in
 * percent (one decimal); null without /proc. On a busy host every process here runs slower for
 * the same work: the same server's CPU per request moved by half between starts on a VM with a
 * fifth of its time stolen, so a run's ratios are read against this figure.
 */
export function stealPercentSince(start: MachineCpuTimes | null): number | null {
  const now = machineCpuTimes();
  if (start === null || now === null || now.total === start.total) return null;
  return Math.round(((now.steal - start.steal) / (now.total - start.total)) * 1000) / 10;
}

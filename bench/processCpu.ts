import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Clock ticks per second of /proc's CPU times (USER_HZ); 100 on nearly every Linux. */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface ProcStat {
  ppid: number;
  /** utime + stime of the process itself. */
  ownTicks: number;
  /** cutime + cstime: the children it has waited for. */
  reapedTicks: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(fields[1]),
      ownTicks: Number(fields[11]) + Number(fields[12]),
      reapedTicks: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return null;
  }
}

const toMs = (ticks: number) => (ticks * 1000) / ticksPerSecond;

/** CPU time a process has used so far (all its threads), in ms; null where /proc is not there (not Linux). */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const stat = readStat(pid);
  return stat ? toMs(stat.ownTicks) : null;
}

/**
 * CPU time of a PostgreSQL server so far, in ms: the postmaster, every backend it has reaped and every backend
 * still running (its direct children). Null when the server's pid or /proc cannot be read.
 */
export function postgresCpuMs(clusterDir: string): number | null {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
  const own = readStat(postmaster);
  if (!own) return null;
  let ticks = own.ownTicks + own.reapedTicks;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = readStat(Number(entry));
    if (child?.ppid === postmaster) ticks += child.ownTicks;
  }
  return toMs(ticks);
}

/** Busy and total CPU time of the whole machine so far, in ms (all cores); null where /proc/stat is not there. */
export function machineCpuMs(): { busy: number; total: number } | null {
  try {
    const values = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = values.reduce((sum, value) => sum + value, 0);
    // idle and iowait
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    return { busy: toMs(total - idle), total: toMs(total) };
  } catch {
    return null;
  }
}

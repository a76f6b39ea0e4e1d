'use strict';
/** What the bench reads of a server process from outside: /proc/<pid>/stat and /proc/<pid>/status. */
const { readdirSync, readFileSync } = require('node:fs');
const { execFileSync } = require('node:child_process');

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5000 }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * CPU time of the process, all its threads, in milliseconds: the sum of the on-CPU nanoseconds
 * of /proc/<pid>/task/<tid>/schedstat when the kernel provides them (nanosecond resolution),
 * else utime + stime of /proc/<pid>/stat (clock-tick resolution, usually 10 ms).
 */
function cpuMs(pid) {
  if (cpuSource() === 'schedstat') {
    try {
      return schedstatMs(pid);
    } catch {
      // a thread ended between listing and reading: fall back for this reading
    }
  }
  return statCpuMs(pid);
}

let source;
/** 'schedstat' or 'stat': which of the two cpuMs reads. */
function cpuSource() {
  if (source === undefined) {
    try {
      source = schedstatMs(process.pid) > 0 ? 'schedstat' : 'stat';
    } catch {
      source = 'stat';
    }
  }
  return source;
}

function schedstatMs(pid) {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  }
  return ns / 1e6;
}

/** User + system CPU time of the process (all its threads, ended ones included), in milliseconds. */
function statCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]); // field 14 of the whole line
  const stime = Number(fields[12]); // field 15
  return ((utime + stime) * 1000) / clockTicks();
}

/** Resident set size in KiB (VmRSS of /proc/<pid>/status). */
function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) : NaN;
}

/** What the results were measured on. */
function machine() {
  const fs = require('node:fs');
  const os = require('node:os');
  let model = 'unknown';
  try {
    model = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? model;
  } catch {
    // not Linux
  }
  return {
    nproc: typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length,
    cpuModel: model,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 100) / 100,
    clockTicksPerSecond: clockTicks(),
    cpuTimeSource: cpuSource() === 'schedstat' ? '/proc/<pid>/task/*/schedstat (ns)' : '/proc/<pid>/stat utime+stime (ticks)',
  };
}

module.exports = { cpuMs, statCpuMs, cpuSource, rssKiB, clockTicks, machine };

/** Self time per function from a V8 .cpuprofile (node --cpu-prof), heaviest first. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  fn: string;
  selfMs: number;
  share: number;
}

export function selfTimes(profile: CpuProfile, top = 12): SelfTime[] {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byFunction = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const f = frames.get(id);
    const name = f ? `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}:${f.lineNumber + 1}` : '(unknown)';
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    total += us;
  });
  return [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => ({ fn, selfMs: us / 1000, share: total > 0 ? us / total : 0 }));
}

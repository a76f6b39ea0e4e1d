/** A server a balancer may send a request to. */
export interface BalancedTarget {
  name: string;
  url: URL;
}

/**
 * A fetch that sends each request to the next target: a round-robin load balancer without
 * stickiness, for an HTTP client transport. `log` gets "<METHOD> <target name>" per request.
 */
export function roundRobinFetch(targets: BalancedTarget[], log: string[] = []): typeof fetch {
  let next = 0;
  return (input, init) => {
    const target = targets[next++ % targets.length];
    const url = new URL(input instanceof Request ? input.url : String(input));
    url.host = target.url.host;
    log.push(`${init?.method ?? 'GET'} ${target.name}`);
    return fetch(url, init);
  };
}

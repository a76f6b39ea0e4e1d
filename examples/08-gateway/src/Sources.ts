/** One source the gateway mounts, as `gateway_status` reports it. */
export interface Source {
  namespace: string;
  kind: 'stdio proxy' | 'http proxy' | 'openapi';
  /** What it fronts: a command line or a URL. */
  upstream: string;
  /** `connected`, `connecting`, `reconnecting`…; `ready` for a source with no connection of its own. */
  state(): string;
}

/** The gateway's sources, registered in its container for its own tools. */
export class Sources {
  constructor(readonly all: readonly Source[]) {}
}

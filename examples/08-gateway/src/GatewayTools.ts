import { Type } from 'class-transformer';
import { IsIn, IsString, ValidateNested } from 'class-validator';
import { injectable } from 'tsyringe';
import { Context, Description, Tool } from '@typemcp/core';
import { Sources } from './Sources';

export class SourceStatus {
  @IsString() @Description('Where its items are: weather_forecast is in weather') namespace!: string;
  @IsIn(['stdio proxy', 'http proxy', 'openapi']) kind!: string;
  @IsString() @Description('The command or URL behind it') upstream!: string;
  @IsString() @Description('connected, connecting, reconnecting or closed; ready for an HTTP API') state!: string;
}

export class StatusOutput {
  @ValidateNested({ each: true }) @Type(() => SourceStatus) sources!: SourceStatus[];
}

/** The gateway's own tools, beside the mounted ones. */
@injectable()
export class GatewayTools {
  constructor(private readonly sources: Sources) {}

  @Tool({ description: 'Which sources the gateway serves, and whether each upstream is connected', output: StatusOutput, annotations: { readOnlyHint: true } })
  gateway_status(): StatusOutput {
    return { sources: this.sources.all.map(({ namespace, kind, upstream, state }) => ({ namespace, kind, upstream, state: state() })) };
  }

  @Tool({ description: 'Who the gateway takes you for, and the scopes of your token', annotations: { readOnlyHint: true } })
  gateway_whoami(ctx: Context): string {
    const principal = ctx.principal;
    return principal === undefined ? 'anonymous' : `${principal.subject} (scopes: ${principal.scopes.join(' ') || 'none'})`;
  }
}

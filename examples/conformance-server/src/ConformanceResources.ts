import { Completion, Resource } from '@typemcp/core';
import type { UriVariables } from '@typemcp/core';
import { RED_PIXEL_PNG } from './fixtures';

/** The resources the conformance scenarios read and subscribe to. */
export class ConformanceResources {
  @Resource({ uri: 'test://static-text', name: 'static-text', title: 'Static Text Resource', description: 'A static text resource', mimeType: 'text/plain' })
  staticText(): string {
    return 'This is the content of the static text resource.';
  }

  @Resource({ uri: 'test://static-binary', name: 'static-binary', title: 'Static Binary Resource', description: 'A static binary resource (a 1x1 PNG)', mimeType: 'image/png' })
  staticBinary(): Uint8Array {
    return RED_PIXEL_PNG;
  }

  @Resource({ uri: 'test://template/{id}/data', name: 'template', title: 'Resource Template', description: 'Data for an id, from a template', mimeType: 'application/json' })
  templateData(vars: UriVariables) {
    const id = String(vars.id);
    return { id, templateTest: true, data: `Data for ID: ${id}` };
  }

  @Completion({ resource: 'test://template/{id}/data', argument: 'id' })
  templateIds(value: string): string[] {
    return ['123', '456', '789'].filter((id) => id.startsWith(value));
  }

  @Resource({ uri: 'test://watched-resource', name: 'watched-resource', title: 'Watched Resource', description: 'A resource clients can subscribe to', mimeType: 'text/plain' })
  watched(): string {
    return 'Watched resource content';
  }
}

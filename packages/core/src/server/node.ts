import { readSkillFolder, watchSkillFolder } from '../skills/folder';
import { createNodeHandler } from '../transports/http/node';
import { provideNodeHost } from './host';
import { listenHttp, listenStdio } from './listen';

// Loaded by the Node entry only (index.ts): the Workers entry (index.web.ts) bundles none of this.
provideNodeHost({
  listenHttp,
  listenStdio,
  nodeHandler: createNodeHandler,
  skillFolders: { read: readSkillFolder, watch: watchSkillFolder },
});

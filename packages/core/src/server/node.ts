import { readSkillFolder, watchSkillFolder } from '../skills/folder';
import { createNodeHandler } from '../transports/http/node';
import { provideNodeHost } from './host';
import { provideIconReader } from './iconFiles';
import { listenHttp, listenStdio, readLocalFile } from './listen';

// Loaded by the Node entry only (index.ts): the Workers entry (index.web.ts) bundles none of this.
provideNodeHost({
  listenHttp,
  listenStdio,
  nodeHandler: createNodeHandler,
  skillFolders: { read: readSkillFolder, watch: watchSkillFolder },
});
provideIconReader(readLocalFile);

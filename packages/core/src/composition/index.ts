export { Mount } from './Mount';
export type { Mountable, MountOptions } from './Mount';
export type { MountedNames } from './names';

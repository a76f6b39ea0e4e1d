export { Tool } from './Tool';
export { Description } from './Description';

export { Tool } from './Tool';
export { Resource } from './Resource';
export { Prompt } from './Prompt';
export { Completion } from './Completion';
export { Description } from './Description';
export { Title } from './Title';
export { EnumTitles } from './EnumTitles';
export { UseMiddleware } from './UseMiddleware';

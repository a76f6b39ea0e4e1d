export { run } from './run';

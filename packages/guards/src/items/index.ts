export { declareGuard, declaredFor } from './declared';
export { itemSettings, ITEM_METHODS } from './perItem';
export type { ItemSettings, PerItem } from './perItem';

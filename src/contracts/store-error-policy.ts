/** What the guard does when the store fails or exceeds `storeTimeout`. */
export type StoreErrorPolicy = 'allow' | 'deny' | 'fallback';

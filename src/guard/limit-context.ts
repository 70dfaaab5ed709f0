// Temporary: src/algorithms moves to contracts/ once the charge work has landed.
export * from '../contracts/limit-context';

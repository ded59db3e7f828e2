import { describeStoreContract } from '../store-contract.js';
import { createMemoryStore } from './memory-store.js';

describeStoreContract('memory fake', async () => {
  const store = createMemoryStore();
  return { store, cleanup: () => store.close() };
});

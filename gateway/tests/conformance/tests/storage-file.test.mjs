// storage/v1 with the default backend: files under DATA_DIR (see storage-suite.mjs).

import { storageSuite } from '../storage-suite.mjs'

storageSuite('file')

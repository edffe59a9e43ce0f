// The public API of @toolhost/read-evidence (README "API"): the evidence step (observe a window or a
// file; mutate, create or move an observed file), the observation store, windowed and snapshot reads,
// atomic writes and moves, locks, the text codec edits need, file versions and the evidence error
// codes. Temp-file naming, directory fsync, the changed-line summary and the metadata comparisons
// behind versions are internal: tests import them from their own files.
export {
  type BeforeCommit,
  type CommitCheck,
  type CommittedFile,
  contentLength,
  type FileContent,
  removeStaleTempFiles,
  type WriteFileAtomicOptions,
  writeFileAtomic,
} from './atomic-write.js';
export {
  type CreateObservedFileOptions,
  createObservedFile,
  type EvidenceStepFailure,
  type LocateResult,
  type MutateObservedFileOptions,
  type MutationDone,
  type MutationOutcome,
  type MutationPlan,
  type MutationSource,
  type MoveObservedFileOptions,
  moveObservedFile,
  mutateObservedFile,
  type ObserveFileOptions,
  type ObserveWindowOptions,
  observeFile,
  observeWindow,
  type PinnedLocation,
  recordWrite,
} from './evidence-step.js';
export {
  EVIDENCE_ERROR_CODES,
  type EvidenceError,
  type EvidenceErrorCode,
  type EvidenceResult,
  fsErrorToEvidence,
} from './errors.js';
export {
  DEFAULT_CONTENT_LIMIT,
  DEFAULT_HASH_LIMIT,
  describeVersion,
  type FileVersion,
  fileVersionOf,
  sha256Of,
} from './file-version.js';
export {
  type AcquireFileLockOptions,
  createFileLocks,
  defaultLockDirectory,
  type FileLock,
  type FileLocks,
  type FileLocksOptions,
  sharedFileLocks,
} from './file-locks.js';
export { type MovedFile, type MoveFileOptions, moveFileNoReplace } from './move-file.js';
export { createMutationLocks, type MutationLocks, sharedMutationLocks } from './mutation-locks.js';
export {
  type CheckObservationOptions,
  type CurrentObservation,
  createObservationStore,
  DEFAULT_CONTENT_BUDGET,
  type Observation,
  type ObservationStore,
  type ObservationStoreOptions,
  type ObservationStoreSnapshot,
  type RecordPresentOptions,
} from './observation-store.js';
export { DEFAULT_SYNC_READ_LIMIT } from './read-small-file.js';
export { type FileSnapshot, type ReadFileSnapshotOptions, readFileSnapshot } from './read-snapshot.js';
export {
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_WINDOW_BYTES,
  DEFAULT_WINDOW_LINES,
  type KnownContent,
  type ReadTextWindowOptions,
  readTextWindow,
  type TextWindow,
  type WindowCut,
} from './read-window.js';
export {
  BINARY_SNIFF_BYTES,
  convertLineEndings,
  type DecodedText,
  decodeText,
  decodeTextForRewrite,
  detectTextEncoding,
  ENCODING_SAMPLE_BYTES,
  encodeEditedText,
  encodeText,
  type LineEnding,
  type LineLayout,
  lineLayoutOf,
  type TextChangeSpan,
  type TextEncoding,
} from './text-codec.js';

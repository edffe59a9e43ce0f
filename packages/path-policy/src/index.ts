export {
  createPathPatternMatcher,
  DEFAULT_PROTECTED_PATHS,
  DEFAULT_SECRET_PATHS,
  type PathPatternMatcher,
  type PathPatternMatcherOptions,
} from './create-path-pattern-matcher.js';
export {
  createPathPolicy,
  type PathAccess,
  type PathPolicy,
  type PathPolicyMode,
  type PathPolicyOptions,
  type ResolvePathOptions,
  type ResolvePathResult,
} from './create-path-policy.js';
export { detectCaseSensitivity } from './detect-case-sensitivity.js';
export {
  descriptorPinningAvailable,
  type PinMode,
  type PinnedTarget,
  type PinTargetOptions,
  type PinTargetResult,
} from './pin-target.js';
export {
  type CompileLinearGlobResult,
  compileLinearGlob,
  createProgramMatcher,
  type GlobProgram,
  LINEAR_GLOB_MAX_LENGTH,
  type LinearGlob,
  type LinearGlobOptions,
  type ProgramMatcher,
} from './linear-glob.js';
export type { PathPolicyError, PathPolicyErrorCode, PathPolicyErrorReason } from './path-policy-error.js';
export {
  HOST_CASE_SENSITIVE,
  HOST_PLATFORM,
  isPathInside,
  type PathPlatform,
  type PathSyntaxOptions,
  relativeDisplayPath,
} from './path-syntax.js';
export {
  DEFAULT_MAX_PATH_LENGTH,
  MAX_NAME_LENGTH,
  type ResolveLexicalPathOptions,
  type ResolveLexicalPathResult,
  resolveLexicalPath,
} from './resolve-lexical-path.js';
export { MAX_SYMLINK_HOPS, type ResolveRealPathResult, resolveRealPath } from './resolve-real-path.js';

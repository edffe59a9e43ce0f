// Each area (editing, discovery, shell) adds its named exports here: an explicit line is an API decision.
export {};

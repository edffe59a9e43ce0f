// Argument types of the plan-mode tool exit_plan_mode. The JSDoc here is what the model reads as each
// parameter's description. `pnpm --filter @toolhost/boot gen:schemas` turns these types into
// src/plan-schemas.generated.ts.

/** Arguments of `exit_plan_mode`. */
export interface ExitPlanModeArguments {
  /**
   * The plan to carry out, in Markdown: the steps, the files to change and how the result will be checked. A person reads it and approves or declines it.
   * @minLength 1
   * @maxLength 65536
   */
  plan: string;
}

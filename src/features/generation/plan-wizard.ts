import type { Context } from "../../cli/types.js";
export interface WizardOptions { output: string; force: boolean; edit?: string }
export async function runWizard(_ctx: Context, _o: WizardOptions): Promise<void> {}

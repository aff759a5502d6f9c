export const core = `SELECT 1;`;

export const assets = `SELECT 1;`;

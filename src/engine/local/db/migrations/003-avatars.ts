export const avatars = `SELECT 1;`;

export function startServer(): void {}

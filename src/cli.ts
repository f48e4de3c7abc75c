/**
 * Operator CLI: `npx tsx src/cli.ts <command> [args]` (or `make cli ARGS="..."`). Each command
 * lives in src/cli/<command>.ts and exports `run(args): Promise<number>` (the exit code) and a
 * one-line `summary`. Commands that print data take `--json` for machine-readable output.
 */
const COMMANDS = [
  'compare',
  'lists',
  'customers',
  'tokens',
  'plans',
  'monitors',
  'webhooks',
  'subjects',
  'mcp',
] as const;
type CommandName = (typeof COMMANDS)[number];

interface CommandModule {
  run(args: string[]): Promise<number>;
  summary: string;
}

async function load(name: CommandName): Promise<CommandModule> {
  return (await import(`./cli/${name}.js`)) as CommandModule;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const lines = ['usage: cli <command> [args]   (cli <command> --help for details)', '', 'commands:'];
    for (const c of COMMANDS) lines.push(`  ${c.padEnd(10)} ${(await load(c)).summary}`);
    console.log(lines.join('\n'));
    return name ? 0 : 2;
  }
  if (!(COMMANDS as readonly string[]).includes(name)) {
    console.error(`unknown command: ${name} (see --help)`);
    return 2;
  }
  return (await load(name as CommandName)).run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  },
);

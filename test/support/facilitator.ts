import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { publicActions, type Account } from 'viem';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import type { LocalChain } from './chain.js';

/**
 * x402's own facilitator (`x402Facilitator` + the exact EVM scheme, v1 and v2) served over
 * node:http on 127.0.0.1, speaking the remote-facilitator protocol: `POST /verify`,
 * `POST /settle` (body `{x402Version, paymentPayload, paymentRequirements}`) and `GET /supported`.
 * It settles from `account` on the given local chain.
 */
export interface LocalFacilitator {
  url: string;
  address: string;
  /** Requests served per path, to tell which route a settlement took. */
  calls: { verify: number; settle: number; supported: number };
  stop(): Promise<void>;
}

export async function startFacilitator(chain: LocalChain, account: Account): Promise<LocalFacilitator> {
  const client = chain.walletClient(account).extend(publicActions);
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => client.readContract(args as Parameters<typeof client.readContract>[0]),
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    writeContract: (args) =>
      client.writeContract({ ...(args as Parameters<typeof client.writeContract>[0]), account, chain: chain.chain }),
    sendTransaction: (args) => client.sendTransaction({ ...args, account, chain: chain.chain }),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    getCode: (args) => client.getCode(args),
  });
  const facilitator = new x402Facilitator();
  registerExactEvmScheme(facilitator, { signer, networks: `eip155:${chain.chainId}` });

  const calls = { verify: 0, settle: 0, supported: 0 };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => send(res, 500, { error: err.message }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/supported') {
      calls.supported++;
      return send(res, 200, facilitator.getSupported());
    }
    if (req.method === 'POST' && (req.url === '/verify' || req.url === '/settle')) {
      const body = JSON.parse(await readBody(req)) as {
        paymentPayload: PaymentPayload;
        paymentRequirements: PaymentRequirements;
      };
      if (req.url === '/verify') {
        calls.verify++;
        return send(res, 200, await facilitator.verify(body.paymentPayload, body.paymentRequirements));
      }
      calls.settle++;
      return send(res, 200, await facilitator.settle(body.paymentPayload, body.paymentRequirements));
    }
    send(res, 404, { error: 'not found' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    address: account.address,
    calls,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

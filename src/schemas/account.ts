/** Response schemas of the account API (spec §4.5; DESIGN §4). */
import { z } from '@hono/zod-openapi';
import { pageOf } from './common.ts';

const timestamp = z.string().openapi({ example: '2025-01-31T12:00:00.000Z', description: 'ISO 8601 UTC' });

export const accountJson = z
  .object({
    team_id: z.string().openapi({ example: '6f1c2d3e-0a4b-4c5d-8e9f-1a2b3c4d5e6f' }),
    name: z.string().openapi({ example: 'Acme' }),
    credits: z.number().int().openapi({ example: 99, description: 'the current credit balance' }),
    created_at: timestamp,
  })
  .openapi('Account');

export const creditTransaction = z
  .object({
    id: z.number().int(),
    delta: z.number().int().openapi({ example: -1, description: '-1 for a generation, +1 for its refund, +N for a grant' }),
    reason: z.enum(['generation', 'refund', 'grant']),
    job_id: z.string().nullable().openapi({ description: 'the async job the change belongs to, if any' }),
    balance_after: z.number().int().openapi({ example: 99 }),
    created_at: timestamp,
  })
  .openapi('CreditTransaction');

export const transactionList = pageOf('transactions', creditTransaction, 'newest first', 'CreditTransactionList');

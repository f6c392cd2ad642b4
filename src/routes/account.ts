/** The caller's team and its credit ledger (spec §4.5; DESIGN §4). */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Services } from '../app.ts';
import { ApiError } from '../errors.ts';
import { accountJson, transactionList } from '../schemas/account.ts';
import { pageQuery } from '../schemas/common.ts';
import { listTransactions } from '../services/credits.ts';
import { getTeam } from '../services/teams.ts';
import { authErrors, errorResponse, json, newRouter } from './router.ts';


const getAccount = createRoute({
  method: 'get',
  path: '/',
  summary: 'The caller’s team and its credit balance',
  security: [{ apiKey: [] }],
  responses: {
    200: { description: 'the team', content: json(accountJson) },
    ...authErrors,
  },
});

const getTransactions = createRoute({
  method: 'get',
  path: '/transactions',
  summary: 'The team’s credit ledger, newest first',
  security: [{ apiKey: [] }],
  request: { query: pageQuery },
  responses: {
    200: { description: 'a page of the ledger', content: json(transactionList) },
    400: errorResponse('limit or offset out of range (VALIDATION_ERROR)'),
    ...authErrors,
  },
});

export function accountRoutes(s: Services): OpenAPIHono<AppEnv> {
  const app = newRouter();
  app.openapi(getAccount, async (c) => {
    const team = await getTeam(s.db, c.get('teamId'));
    // The key was just resolved to this team; a team deleted in between is as good as no key.
    if (!team) throw new ApiError(401, 'UNAUTHORIZED', 'the team of this API key no longer exists');
    return c.json({ team_id: team.id, name: team.name, credits: team.credits, created_at: team.createdAt }, 200);
  });
  app.openapi(getTransactions, async (c) => {
    const { limit, offset } = c.req.valid('query');
    const page = await listTransactions(s.db, c.get('teamId'), limit, offset);
    return c.json({ ...page, limit, offset }, 200);
  });
  return app;
}

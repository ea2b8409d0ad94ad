import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../../db/database.js'
import { Did } from '../auth/auth.schemas.js'
import { errorRefs, PageQuery, pageResponse, paginate } from '../shared/route-helpers.js'
import { listActivities } from './wallet-activity.js'
import { walletStatistics } from './wallet-statistics.js'
import { Activity, activityView, RecordId, Statistics } from './wallet.schemas.js'

/** The holder's activity log and statistics (docs/wallet.md). Read-only. */
export const walletActivityRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (
  app,
  { db, now },
) => {
  const params = Type.Object({ did: Did })

  app.get(
    '/:did/activities',
    {
      schema: {
        tags: ['Wallet'],
        summary: "The wallet's append-only activity log, newest first by default, paginated",
        params,
        querystring: Type.Composite([
          PageQuery,
          Type.Object({
            type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            credential_id: Type.Optional(RecordId),
            order: Type.Optional(Type.Union([Type.Literal('desc'), Type.Literal('asc')], { default: 'desc' })),
          }),
        ]),
        response: { 200: pageResponse(Activity), ...errorRefs(400, 401, 403) },
      },
    },
    async (request) => {
      const { type, credential_id, order } = request.query
      return paginate(
        request.query,
        (p) => listActivities(db, request.auth!.did, { type, credential_id, order: order ?? 'desc' }, p),
        activityView,
      )
    },
  )

  app.get(
    '/:did/statistics',
    {
      schema: {
        tags: ['Wallet'],
        summary:
          'Counts over the wallet: credentials by status, type, issuer and source; shares; evidence; requests; presentations; activity',
        params,
        response: {
          200: Type.Object({ success: Type.Boolean(), statistics: Statistics }),
          ...errorRefs(400, 401, 403),
        },
      },
    },
    async (request) => ({ success: true, statistics: await walletStatistics(db, request.auth!.did, now()) }),
  )
}

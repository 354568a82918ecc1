import type { GatewayTestbed } from '../gateway/support/gatewayTestbed.ts';

/** The types of the webhook events recorded about one refund, oldest first. */
export async function refundEventTypes(testbed: GatewayTestbed, refundId: string): Promise<string[]> {
  const events = await testbed.server.db
    .selectFrom('webhook_events')
    .select(['type', 'body'])
    .where('partner_id', '=', testbed.partner.partnerId)
    .orderBy('id')
    .execute();
  return events.filter((event) => JSON.parse(event.body).data.object.id === refundId).map((event) => event.type);
}

// Original file: protos/fabricd/v1/channel_service.proto

export const ChannelDelivery = {
  CHANNEL_DELIVERY_UNSPECIFIED: 'CHANNEL_DELIVERY_UNSPECIFIED',
  CHANNEL_DELIVERY_MAILBOX: 'CHANNEL_DELIVERY_MAILBOX',
  CHANNEL_DELIVERY_LOG: 'CHANNEL_DELIVERY_LOG',
} as const;

export type ChannelDelivery =
  | 'CHANNEL_DELIVERY_UNSPECIFIED'
  | 0
  | 'CHANNEL_DELIVERY_MAILBOX'
  | 1
  | 'CHANNEL_DELIVERY_LOG'
  | 2

export type ChannelDelivery__Output = typeof ChannelDelivery[keyof typeof ChannelDelivery]

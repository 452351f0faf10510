import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AcquireRequest as _fabricd_v1_AcquireRequest, AcquireRequest__Output as _fabricd_v1_AcquireRequest__Output } from './fabricd/v1/AcquireRequest';
import type { AcquireResponse as _fabricd_v1_AcquireResponse, AcquireResponse__Output as _fabricd_v1_AcquireResponse__Output } from './fabricd/v1/AcquireResponse';
import type { CheckLeasesRequest as _fabricd_v1_CheckLeasesRequest, CheckLeasesRequest__Output as _fabricd_v1_CheckLeasesRequest__Output } from './fabricd/v1/CheckLeasesRequest';
import type { CheckLeasesResponse as _fabricd_v1_CheckLeasesResponse, CheckLeasesResponse__Output as _fabricd_v1_CheckLeasesResponse__Output } from './fabricd/v1/CheckLeasesResponse';
import type { Lease as _fabricd_v1_Lease, Lease__Output as _fabricd_v1_Lease__Output } from './fabricd/v1/Lease';
import type { LeaseConflict as _fabricd_v1_LeaseConflict, LeaseConflict__Output as _fabricd_v1_LeaseConflict__Output } from './fabricd/v1/LeaseConflict';
import type { LeaseEvent as _fabricd_v1_LeaseEvent, LeaseEvent__Output as _fabricd_v1_LeaseEvent__Output } from './fabricd/v1/LeaseEvent';
import type { LeaseHolder as _fabricd_v1_LeaseHolder, LeaseHolder__Output as _fabricd_v1_LeaseHolder__Output } from './fabricd/v1/LeaseHolder';
import type { LeaseServiceClient as _fabricd_v1_LeaseServiceClient, LeaseServiceDefinition as _fabricd_v1_LeaseServiceDefinition } from './fabricd/v1/LeaseService';
import type { LeaseWaiter as _fabricd_v1_LeaseWaiter, LeaseWaiter__Output as _fabricd_v1_LeaseWaiter__Output } from './fabricd/v1/LeaseWaiter';
import type { ListLeasesRequest as _fabricd_v1_ListLeasesRequest, ListLeasesRequest__Output as _fabricd_v1_ListLeasesRequest__Output } from './fabricd/v1/ListLeasesRequest';
import type { ListLeasesResponse as _fabricd_v1_ListLeasesResponse, ListLeasesResponse__Output as _fabricd_v1_ListLeasesResponse__Output } from './fabricd/v1/ListLeasesResponse';
import type { ReleaseRequest as _fabricd_v1_ReleaseRequest, ReleaseRequest__Output as _fabricd_v1_ReleaseRequest__Output } from './fabricd/v1/ReleaseRequest';
import type { ReleaseResponse as _fabricd_v1_ReleaseResponse, ReleaseResponse__Output as _fabricd_v1_ReleaseResponse__Output } from './fabricd/v1/ReleaseResponse';
import type { RenewRequest as _fabricd_v1_RenewRequest, RenewRequest__Output as _fabricd_v1_RenewRequest__Output } from './fabricd/v1/RenewRequest';
import type { RenewResponse as _fabricd_v1_RenewResponse, RenewResponse__Output as _fabricd_v1_RenewResponse__Output } from './fabricd/v1/RenewResponse';
import type { WatchLeasesRequest as _fabricd_v1_WatchLeasesRequest, WatchLeasesRequest__Output as _fabricd_v1_WatchLeasesRequest__Output } from './fabricd/v1/WatchLeasesRequest';
import type { WatchLeasesResponse as _fabricd_v1_WatchLeasesResponse, WatchLeasesResponse__Output as _fabricd_v1_WatchLeasesResponse__Output } from './fabricd/v1/WatchLeasesResponse';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from './google/protobuf/Duration';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fabricd: {
    v1: {
      AcquireRequest: MessageTypeDefinition<_fabricd_v1_AcquireRequest, _fabricd_v1_AcquireRequest__Output>
      AcquireResponse: MessageTypeDefinition<_fabricd_v1_AcquireResponse, _fabricd_v1_AcquireResponse__Output>
      CheckLeasesRequest: MessageTypeDefinition<_fabricd_v1_CheckLeasesRequest, _fabricd_v1_CheckLeasesRequest__Output>
      CheckLeasesResponse: MessageTypeDefinition<_fabricd_v1_CheckLeasesResponse, _fabricd_v1_CheckLeasesResponse__Output>
      Lease: MessageTypeDefinition<_fabricd_v1_Lease, _fabricd_v1_Lease__Output>
      LeaseConflict: MessageTypeDefinition<_fabricd_v1_LeaseConflict, _fabricd_v1_LeaseConflict__Output>
      LeaseEndCause: EnumTypeDefinition
      LeaseEvent: MessageTypeDefinition<_fabricd_v1_LeaseEvent, _fabricd_v1_LeaseEvent__Output>
      LeaseEventType: EnumTypeDefinition
      LeaseHolder: MessageTypeDefinition<_fabricd_v1_LeaseHolder, _fabricd_v1_LeaseHolder__Output>
      LeaseMode: EnumTypeDefinition
      LeaseService: SubtypeConstructor<typeof grpc.Client, _fabricd_v1_LeaseServiceClient> & { service: _fabricd_v1_LeaseServiceDefinition }
      LeaseWaiter: MessageTypeDefinition<_fabricd_v1_LeaseWaiter, _fabricd_v1_LeaseWaiter__Output>
      ListLeasesRequest: MessageTypeDefinition<_fabricd_v1_ListLeasesRequest, _fabricd_v1_ListLeasesRequest__Output>
      ListLeasesResponse: MessageTypeDefinition<_fabricd_v1_ListLeasesResponse, _fabricd_v1_ListLeasesResponse__Output>
      ReleaseRequest: MessageTypeDefinition<_fabricd_v1_ReleaseRequest, _fabricd_v1_ReleaseRequest__Output>
      ReleaseResponse: MessageTypeDefinition<_fabricd_v1_ReleaseResponse, _fabricd_v1_ReleaseResponse__Output>
      RenewRequest: MessageTypeDefinition<_fabricd_v1_RenewRequest, _fabricd_v1_RenewRequest__Output>
      RenewResponse: MessageTypeDefinition<_fabricd_v1_RenewResponse, _fabricd_v1_RenewResponse__Output>
      WatchLeasesRequest: MessageTypeDefinition<_fabricd_v1_WatchLeasesRequest, _fabricd_v1_WatchLeasesRequest__Output>
      WatchLeasesResponse: MessageTypeDefinition<_fabricd_v1_WatchLeasesResponse, _fabricd_v1_WatchLeasesResponse__Output>
    }
  }
  google: {
    protobuf: {
      Duration: MessageTypeDefinition<_google_protobuf_Duration, _google_protobuf_Duration__Output>
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
}


// Original file: proto/gatehouse/v1/auth.proto


export interface Registration {
  'machineKey'?: (string);
  'nodeKey'?: (string);
  'hostname'?: (string);
}

export interface Registration__Output {
  'machineKey': (string);
  'nodeKey': (string);
  'hostname': (string);
}

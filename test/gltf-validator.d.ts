/** The parts of the Khronos glTF validator (npm gltf-validator, no bundled types) the CLI tests use. */
declare module 'gltf-validator' {
  interface ValidationReport {
    issues: {
      numErrors: number;
      numWarnings: number;
      numInfos: number;
      messages: { code: string; message: string; severity: number; pointer?: string }[];
    };
    info: { animationCount: number; hasMorphTargets: boolean; totalVertexCount: number };
  }
  const validator: {
    validateBytes(data: Uint8Array, options?: { maxIssues?: number }): Promise<ValidationReport>;
  };
  export default validator;
}

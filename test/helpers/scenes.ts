/**
 * The render-mesh scene of the export and gallery tests: a soft body that
 * draws an embedded icosphere (002 §5) and a lattice duck that draws its
 * skinned mesh (000 §4.4), then the bodies each test adds.
 */
export function renderMeshScene(more: Record<string, unknown>[]) {
  return {
    title: 'render meshes',
    family: 'continuum',
    world: { substeps: 5 },
    bodies: [
      {
        type: 'softbody',
        name: 'jelly',
        tetMesh: { box: { size: [0.4, 0.4, 0.4], resolution: [3, 3, 3] } },
        transform: { translate: [0, 0.5, 0] },
        material: { model: 'neo-hookean', youngsModulus: 20000, poissonRatio: 0.3 },
        render: { mesh: { icosphere: { radius: 0.18, subdivisions: 2 } }, embed: 'tets' },
      },
      {
        type: 'lattice-shape',
        name: 'duck',
        mesh: { duck: { size: 0.2 } },
        spacing: 0.05,
        transform: { translate: [1, 0.5, 0] },
      },
      ...more,
    ],
  };
}

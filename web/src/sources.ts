/**
 * The papers pbdkit implements (shared/seeds), as the scenes cite them: a
 * scene's `figure` such as "003 Figure 3" names the paper by its number.
 */
export interface Source {
  /** The number scenes cite, e.g. '003'. */
  id: string;
  title: string;
  authors: string;
  year: number;
  /** Where it appeared. */
  venue: string;
  /** What pbdkit takes from it. */
  takes: string;
  /** The docs pages where its methods land. */
  docs: string[];
}

export const sources: Source[] = [
  {
    id: '003',
    title: 'Position Based Dynamics',
    authors: 'Matthias Müller, Bruno Heidelberger, Marcus Hennix, John Ratcliff',
    year: 2007,
    venue: 'Journal of Visual Communication and Image Representation 18(2)',
    takes:
      'The solver itself: Algorithm 1 (predict, project, update velocities), the non-linear Gauss–Seidel projection and the stiffness k′ = 1 − (1 − k)^(1/n); collision constraints (continuous, with a static fallback), friction and restitution; damping that keeps rigid motion; attachments; cloth with stretch and dihedral bending (the gradients of its Appendix A); two-way coupling with rigid bodies; self collision with thickness; balloons (overpressure) and tearing.',
    docs: ['solver.md', 'cloth.md', 'collision.md'],
  },
  {
    id: '000',
    title: 'A Survey on Position-Based Simulation Methods in Computer Graphics',
    authors: 'Jan Bender, Matthias Müller, Miguel A. Otaduy, Matthias Teschner, Miles Macklin',
    year: 2014,
    venue: 'Computer Graphics Forum 33(6)',
    takes:
      'Everything beyond the first paper: triangle and tet volume and area constraints, position based fluids (density constraints), strain limiting and long range attachments, damping schemes, parallel projection by graph colouring, and shape matching in all its forms (regions, fast summation on lattices, octrees and mesh paths, oriented particles, volume conservation, plasticity, cloth regions, multi-resolution).',
    docs: ['shape-matching.md', 'fluids.md', 'collision.md'],
  },
  {
    id: '001',
    title: 'Position-based Methods for the Simulation of Solid Objects in Computer Graphics',
    authors: 'Jan Bender, Matthias Müller, Miguel A. Otaduy, Matthias Teschner',
    year: 2013,
    venue: 'Eurographics 2013 State of the Art Reports',
    takes:
      'The earlier, solids-only version of the survey: the cleaner statement of many of its formulas (volume and area constraints, shape matching, strain limiting) that the code cites where the 2014 text was lost in extraction.',
    docs: ['continuum.md', 'shape-matching.md'],
  },
  {
    id: '002',
    title: 'Position-Based Simulation of Continuous Materials',
    authors: 'Jan Bender, Dan Koschier, Patrick Charrier, Daniel Weber',
    year: 2014,
    venue: 'Computers & Graphics 44',
    takes:
      'Energy constraints C = E from continuum mechanics: StVK and Neo-Hookean materials on triangles and tets, Lamé parameters from Young’s modulus and Poisson’s ratio, inversion handling, plasticity, orthotropic cloth, isometric bending, the embedded render mesh, and the experiments of its Figures 4, 5 and 7 (`pbdkit experiment`).',
    docs: ['continuum.md'],
  },
  {
    id: '004',
    title: 'A Survey on Position Based Dynamics (2017), summarised',
    authors: 'Jan Bender, Matthias Müller, Miles Macklin',
    year: 2017,
    venue: 'Eurographics 2017 Tutorials',
    takes:
      'XPBD and the Newton view of the solver, its link to implicit Euler, hierarchical solving, and the list of constraint families (long range attachments, strands, continuous materials, rigid bodies, fluids, shape matching) that pbdkit follows.',
    docs: ['solver.md', 'architecture.md'],
  },
];

export function findSource(id: string): Source | undefined {
  return sources.find((s) => s.id === id);
}

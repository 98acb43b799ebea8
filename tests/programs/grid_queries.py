"""Operations with no kernel work: ``ttl.grid_size`` and ``ttl.node`` (spec: grid/*.py).

The spec's grid examples are operations whose body only asks where it runs and
asserts on the answer. Such a body runs once per node, with that node's
coordinates; nothing is dispatched.
"""

# not for tt-lang-sim 1.1.6: it requires exactly three kernels; the spec's grid examples have none
# no kernel work: nothing is compiled into a bundle

import ttl

GX, GY = 3, 2
SEEN = set()


@ttl.operation(grid=(GX, GY))
def grid_size_example() -> None:
    assert ttl.grid_size(dims=1) == GX * GY
    assert ttl.grid_size(dims=2) == (GX, GY)
    assert ttl.grid_size(dims=3) == (GX, GY, 1)


@ttl.operation(grid=(GX, GY))
def node_example() -> None:
    flat = ttl.node(dims=1)
    x, y = ttl.node(dims=2)
    x3, y3, z = ttl.node(dims=3)
    assert flat == x * GY + y and (x3, y3, z) == (x, y, 0)
    assert 0 <= x < GX and 0 <= y < GY
    SEEN.add((x, y))


def main() -> None:
    grid_size_example()
    node_example()
    assert {(x, y) for x in range(GX) for y in range(GY)} == SEEN, SEEN
    print("PASS")


if __name__ == "__main__":
    main()

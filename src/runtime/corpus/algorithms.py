"""Classic algorithms, written for the differential corpus."""


def binary_search(items, wanted):
    low, high = 0, len(items) - 1
    while low <= high:
        middle = (low + high) // 2
        if items[middle] == wanted:
            return middle
        if items[middle] < wanted:
            low = middle + 1
        else:
            high = middle - 1
    return -1


def bubble_sort(values):
    data = list(values)
    for end in range(len(data) - 1, 0, -1):
        swapped = False
        for i in range(end):
            if data[i] > data[i + 1]:
                data[i], data[i + 1] = data[i + 1], data[i]
                swapped = True
        if not swapped:
            break
    return data


def insertion_sort(values):
    data = values[:]
    for i in range(1, len(data)):
        key = data[i]
        j = i - 1
        while j >= 0 and data[j] > key:
            data[j + 1] = data[j]
            j -= 1
        data[j + 1] = key
    return data


def merge_sort(values):
    if len(values) <= 1:
        return values
    half = len(values) // 2
    left, right = merge_sort(values[:half]), merge_sort(values[half:])
    merged = []
    while left and right:
        merged.append(left.pop(0) if left[0] <= right[0] else right.pop(0))
    return merged + left + right


def quicksort(values):
    if len(values) < 2:
        return values
    pivot, *rest = values
    smaller = [v for v in rest if v < pivot]
    larger = [v for v in rest if v >= pivot]
    return quicksort(smaller) + [pivot] + quicksort(larger)


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def hanoi(n, source, target, spare, moves):
    if n == 0:
        return moves
    hanoi(n - 1, source, spare, target, moves)
    moves.append((source, target))
    hanoi(n - 1, spare, target, source, moves)
    return moves


def sieve(limit):
    marks = [True] * (limit + 1)
    marks[0:2] = [False, False]
    for n in range(2, int(limit ** 0.5) + 1):
        if marks[n]:
            for multiple in range(n * n, limit + 1, n):
                marks[multiple] = False
    return [n for n, prime in enumerate(marks) if prime]


def word_counts(text):
    counts = {}
    for word in text.lower().split():
        word = word.strip(".,!?")
        counts[word] = counts.get(word, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def matrix_multiply(a, b):
    rows, inner, cols = len(a), len(b), len(b[0])
    result = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        for j in range(cols):
            for k in range(inner):
                result[i][j] += a[i][k] * b[k][j]
    return result


def flatten(nested):
    out = []
    for item in nested:
        if isinstance(item, list):
            out.extend(flatten(item))
        else:
            out.append(item)
    return out


def permutations(items):
    if len(items) <= 1:
        return [items]
    result = []
    for i, head in enumerate(items):
        for tail in permutations(items[:i] + items[i + 1:]):
            result.append([head] + tail)
    return result


def bfs(graph, start):
    seen, queue, order = {start}, [start], []
    while queue:
        node = queue.pop(0)
        order.append(node)
        for neighbour in graph.get(node, []):
            if neighbour not in seen:
                seen.add(neighbour)
                queue.append(neighbour)
    return order


def linked_list_reverse(head):
    previous = None
    while head is not None:
        head["next"], previous, head = previous, head, head["next"]
    return previous
